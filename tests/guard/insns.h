/* SPDX-License-Identifier: GPL-2.0 */
/* BPF instructions spelled out, for the hand-assembled guard programs. */
#ifndef GUARD_INSNS_H
#define GUARD_INSNS_H

#include <linux/bpf.h>

#define INSN(c, d, s, o, i)                 \
	((struct bpf_insn){ .code = (c),    \
			    .dst_reg = (d), \
			    .src_reg = (s), \
			    .off = (o),     \
			    .imm = (i) })
/* dst = address of the first byte of map @fd's value: two slots */
#define LD_MAP_VALUE(dst, fd)                                              \
	INSN(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_VALUE, 0, fd), \
		INSN(0, 0, 0, 0, 0)
#define CALL_HELPER(id) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define CALL_KFUNC(btf_id) \
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, btf_id)
#define LDX_DW(dst, src, off) INSN(BPF_LDX | BPF_MEM | BPF_DW, dst, src, off, 0)
#define MOV64_IMM(dst, imm) INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define EXIT_INSN() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
/* dst = map @fd: two slots */
#define LD_MAP_FD(dst, fd)                                              \
	INSN(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd), \
		INSN(0, 0, 0, 0, 0)
#define JNE_IMM(dst, imm, off) INSN(BPF_JMP | BPF_JNE | BPF_K, dst, 0, off, imm)
/* a call of the subprogram @off instructions after the next one */
#define CALL_SUBPROG(off) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, off)
#define STX_DW(dst, src, off) INSN(BPF_STX | BPF_MEM | BPF_DW, dst, src, off, 0)
#define MOV64_REG(dst, src) INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
#define ADD64_IMM(dst, imm) INSN(BPF_ALU64 | BPF_ADD | BPF_K, dst, 0, 0, imm)
#define R10 BPF_REG_10

#endif
