// SPDX-License-Identifier: GPL-2.0
/*
 * bpk_hang: real hangs on demand, for the report's wait-for analysis. Built
 * out of tree against the guest's kernel and loaded in the guest only.
 *
 *   insmod bpk_hang.ko hang=abba    two kthreads, mutexes A and B taken in
 *                                   opposite orders: a deadlock
 *   insmod bpk_hang.ko hang=chain   C waits on a mutex held by B, B waits on
 *                                   an rwsem held by A, A sleeps in D on a
 *                                   completion nobody completes
 *   insmod bpk_hang.ko hang=sem     a task waits on a semaphore (no owner
 *                                   recorded)
 *   insmod bpk_hang.ko hang=page    a task waits on a page lock taken at
 *                                   load time (no owner recorded)
 *   insmod bpk_hang.ko hang=more    rtb waits on an rt_mutex held by rta,
 *                                   which sleeps in D on a completion; pcw
 *                                   waits to write a percpu rwsem that pcr
 *                                   holds for reading, and pcr2 waits to
 *                                   read it behind pcw (no owner recorded)
 *
 * Each task it makes is a kthread named bpk-hang-<role>; what it made is
 * printed as each task starts, one line a task:
 *   bpk-hang: case=C task=ROLE pid=P holds=KIND@ADDR,... waits=KIND@ADDR
 * (addresses with %px: the test compares them with the dump's). The tasks
 * never return: the module cannot be unloaded, the guest is meant to be
 * dumped.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu-rwsem.h>
#include <linux/rtmutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/semaphore.h>

static char *hang = "abba";
module_param(hang, charp, 0444);
MODULE_PARM_DESC(hang, "abba, chain, sem, page or more");

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static DEFINE_MUTEX(chain_mutex);
static DECLARE_RWSEM(chain_rwsem);
static DECLARE_COMPLETION(never);
static struct semaphore sem;
static struct page *page;
/* the order of the chain: each link takes its lock only once the one
 * below holds its own, so the chain is the same on every boot
 */
static DECLARE_COMPLETION(a_holds);
static DECLARE_COMPLETION(b_holds);
static DEFINE_RT_MUTEX(rtm);
DEFINE_STATIC_PERCPU_RWSEM(pcs);
static DECLARE_COMPLETION(rta_holds);
static DECLARE_COMPLETION(pcr_holds);

static int abba_1(void *unused)
{
	mutex_lock(&lock_a);
	msleep(200);
	mutex_lock(&lock_b);
	return 0;
}

static int abba_2(void *unused)
{
	mutex_lock(&lock_b);
	msleep(200);
	mutex_lock(&lock_a);
	return 0;
}

static int chain_a(void *unused)
{
	down_write(&chain_rwsem);
	complete(&a_holds);
	wait_for_completion(&never);
	return 0;
}

static int chain_b(void *unused)
{
	wait_for_completion(&a_holds);
	mutex_lock(&chain_mutex);
	complete(&b_holds);
	down_read(&chain_rwsem);
	return 0;
}

static int chain_c(void *unused)
{
	wait_for_completion(&b_holds);
	mutex_lock(&chain_mutex);
	return 0;
}

static int sem_waiter(void *unused)
{
	down(&sem);
	return 0;
}

static int page_waiter(void *unused)
{
	lock_page(page);
	return 0;
}

static int rt_a(void *unused)
{
	rt_mutex_lock(&rtm);
	complete(&rta_holds);
	wait_for_completion(&never);
	return 0;
}

static int rt_b(void *unused)
{
	wait_for_completion(&rta_holds);
	rt_mutex_lock(&rtm);
	return 0;
}

static int pc_reader(void *unused)
{
	percpu_down_read(&pcs);
	complete(&pcr_holds);
	wait_for_completion(&never);
	return 0;
}

static int pc_writer(void *unused)
{
	wait_for_completion(&pcr_holds);
	percpu_down_write(&pcs);
	return 0;
}

/* started once the writer waits: a reader then queues behind it */
static int pc_reader2(void *unused)
{
	percpu_down_read(&pcs);
	return 0;
}

static struct task_struct *start(int (*fn)(void *), const char *role)
{
	struct task_struct *t = kthread_run(fn, NULL, "bpk-hang-%s", role);

	if (IS_ERR(t))
		pr_err("bpk-hang: cannot start %s: %ld\n", role, PTR_ERR(t));
	return t;
}

/* wait until the writer has closed the reader fast path, at most 10 s */
static void writer_blocks(void)
{
	for (int i = 0; i < 1000 && !atomic_read(&pcs.block); i++)
		msleep(10);
}

static int __init bpk_hang_init(void)
{
	struct task_struct *t1, *t2, *t3, *t4, *t5;

	/*
	 * Each line is printed as soon as its task exists, before waiting for
	 * it to block: the trigger may panic the guest as soon as the task
	 * has been blocked for its few seconds, and under a loaded TCG the
	 * waits below can take longer than that.
	 */
	if (!strcmp(hang, "abba")) {
		t1 = start(abba_1, "abba1");
		if (IS_ERR(t1))
			return -ECHILD;
		pr_info("bpk-hang: case=abba task=abba1 pid=%d holds=mutex@%px waits=mutex@%px\n",
			task_pid_nr(t1), &lock_a, &lock_b);
		t2 = start(abba_2, "abba2");
		if (IS_ERR(t2))
			return -ECHILD;
		pr_info("bpk-hang: case=abba task=abba2 pid=%d holds=mutex@%px waits=mutex@%px\n",
			task_pid_nr(t2), &lock_b, &lock_a);
	} else if (!strcmp(hang, "chain")) {
		t1 = start(chain_a, "a");
		if (IS_ERR(t1))
			return -ECHILD;
		pr_info("bpk-hang: case=chain task=a pid=%d holds=rwsem@%px waits=completion@%px\n",
			task_pid_nr(t1), &chain_rwsem, &never);
		t2 = start(chain_b, "b");
		if (IS_ERR(t2))
			return -ECHILD;
		pr_info("bpk-hang: case=chain task=b pid=%d holds=mutex@%px waits=rwsem@%px\n",
			task_pid_nr(t2), &chain_mutex, &chain_rwsem);
		t3 = start(chain_c, "c");
		if (IS_ERR(t3))
			return -ECHILD;
		pr_info("bpk-hang: case=chain task=c pid=%d holds= waits=mutex@%px\n",
			task_pid_nr(t3), &chain_mutex);
	} else if (!strcmp(hang, "sem")) {
		sema_init(&sem, 0);
		t1 = start(sem_waiter, "sem");
		if (IS_ERR(t1))
			return -ECHILD;
		pr_info("bpk-hang: case=sem task=sem pid=%d holds= waits=semaphore@%px\n",
			task_pid_nr(t1), &sem);
	} else if (!strcmp(hang, "page")) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		lock_page(page);
		t1 = start(page_waiter, "page");
		if (IS_ERR(t1))
			return -ECHILD;
		pr_info("bpk-hang: case=page task=page pid=%d holds= waits=page@%px\n",
			task_pid_nr(t1), page);
	} else if (!strcmp(hang, "more")) {
		t1 = start(rt_a, "rta");
		if (IS_ERR(t1))
			return -ECHILD;
		pr_info("bpk-hang: case=more task=rta pid=%d holds=rt_mutex@%px waits=completion@%px\n",
			task_pid_nr(t1), &rtm, &never);
		t2 = start(rt_b, "rtb");
		if (IS_ERR(t2))
			return -ECHILD;
		pr_info("bpk-hang: case=more task=rtb pid=%d holds= waits=rt_mutex@%px\n",
			task_pid_nr(t2), &rtm);
		t3 = start(pc_reader, "pcr");
		if (IS_ERR(t3))
			return -ECHILD;
		pr_info("bpk-hang: case=more task=pcr pid=%d holds=percpu-rwsem@%px waits=completion@%px\n",
			task_pid_nr(t3), &pcs, &never);
		t4 = start(pc_writer, "pcw");
		if (IS_ERR(t4))
			return -ECHILD;
		pr_info("bpk-hang: case=more task=pcw pid=%d holds= waits=percpu-rwsem@%px\n",
			task_pid_nr(t4), &pcs);
		/*
		 * The second reader must find the writer's block set, or it
		 * takes the lock for reading beside the first.
		 */
		writer_blocks();
		t5 = start(pc_reader2, "pcr2");
		if (IS_ERR(t5))
			return -ECHILD;
		pr_info("bpk-hang: case=more task=pcr2 pid=%d holds= waits=percpu-rwsem@%px\n",
			task_pid_nr(t5), &pcs);
	} else {
		pr_err("bpk-hang: hang=%s: not abba, chain, sem, page or more\n",
		       hang);
		return -EINVAL;
	}
	return 0;
}
module_init(bpk_hang_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION(
	"bpf-panic kdump appliance: hangs on demand for the wait-for analysis");
