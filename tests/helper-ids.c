// SPDX-License-Identifier: GPL-2.0
/*
 * Print "name id" for every helper in the __BPF_FUNC_MAPPER of the
 * linux/bpf.h found first on the include path: the compiler, not a text
 * parser, decides the numbers.
 */
#include <stdio.h>
#include <linux/bpf.h>

#define PRINT_ID(x) printf("%s %d\n", #x, (int)BPF_FUNC_##x)

int main(void)
{
	int printed[] = { __BPF_FUNC_MAPPER(PRINT_ID) };

	return sizeof(printed) > 0 ? 0 : 1;
}
