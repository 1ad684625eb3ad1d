// SPDX-License-Identifier: GPL-2.0
/* func_error: a kernel function returned an error (fexit on func=). */
#include <bpk/trigger.bpf.h>

const volatile __s64 cfg_errno = 0; /* errno to match, 0 = any error */
/* Size of the function's return type, from BTF (set by the loader): 1, 2,
 * 4 or 8. Above that many bytes the return register holds whatever the
 * function left there: only the low bytes count, sign-extended. (The loader
 * refuses bool and unsigned types narrower than 4 bytes, which cannot hold
 * an error.)
 */
const volatile __u32 cfg_ret_bytes = 8;
/* the function's name, for the record (see func_entry.bpf.c) */
const volatile char cfg_func[64] = {};

SEC("fexit")
int BPF_PROG(func_error)
{
	__u64 raw = 0;
	long ret;

	if (bpf_get_func_ret(ctx, &raw))
		return 0;
	switch (cfg_ret_bytes) {
	case 1:
		ret = (__s8)raw;
		break;
	case 2:
		ret = (__s16)raw;
		break;
	case 4:
		ret = (__s32)raw;
		break;
	default:
		ret = (long)raw;
	}
	/* an error is -1 .. -4095, as an int, a long or an ERR_PTR(); NULL is
	 * not one
	 */
	if (ret >= 0 || ret < -4095 || (cfg_errno && ret != -cfg_errno))
		return 0;
	if (!trigger_task_selected())
		return 0;
	trigger_match("func_error", "func=%s errno=%ld", cfg_func, -ret);
	return 0;
}
