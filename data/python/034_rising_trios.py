# difficulty: Medium
# topic: dynamic-programming
def rising_trios(series: List[int]) -> int:
    n = len(series)
    pairs_ending = [0] * n
    trios_ending = [0] * n
    for i in range(n):
        for j in range(i):
            if series[j] < series[i]:
                pairs_ending[i] += 1
                trios_ending[i] += pairs_ending[j]
    return sum(trios_ending) + sum(pairs_ending)
