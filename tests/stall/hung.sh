#!/bin/sh
# LKDTM's hung task: this task sleeps uninterruptibly, for ever; the
# hung-task detector sees it after hung_task_timeout_secs.
echo HUNG_TASK >/sys/kernel/debug/provoke-crash/DIRECT
