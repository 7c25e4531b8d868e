# The stateful fuzzer on the debug kernel (lockdep, KASAN, kmemleak, atomic
# sleep checks): 100,000 operations by four workers, root and uid 1000;
# then nothing of kpmc's is live and counts are still exact. make fuzz
# runs longer ones with a seed of one's choice.
. "$(dirname "$0")/fuzz.sh"
fuzz_run 100000 1
