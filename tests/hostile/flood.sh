#!/bin/sh
# A reproducer that floods the console and its own output (the workload
# port) with more than the run keeps, then fires the trigger (comm
# hostile-fire, as hostile.sh).
i=0
while [ $i -lt 40000 ]; do
	echo "flood line $i: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	i=$((i + 1))
done | tee /dev/console
printf '#!/bin/sh\nexec 3</no/such/file\n' >/tmp/hostile-fire
chmod +x /tmp/hostile-fire
/tmp/hostile-fire
