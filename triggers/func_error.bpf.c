// SPDX-License-Identifier: GPL-2.0
/* func_error: a kernel function returned an error (fexit on func=). */
#include "trigger.bpf.h"

const volatile __s64 cfg_errno = 0; /* errno to match, 0 = any error */
/* Size of the function's return type, from BTF (set by the loader): a
 * 4-byte int leaves the upper half of the register undefined.
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
	ret = cfg_ret_bytes == 4 ? (long)(int)raw : (long)raw;
	/* an error is -1 .. -4095, as an int, a long or an ERR_PTR() */
	if (ret >= 0 || ret < -4095 || (cfg_errno && ret != -cfg_errno))
		return 0;
	if (!trigger_task_selected())
		return 0;
	trigger_match("func_error", "func=%s errno=%ld", cfg_func, -ret);
	return 0;
}
