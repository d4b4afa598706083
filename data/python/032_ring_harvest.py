# difficulty: Medium
# topic: dynamic-programming
def ring_harvest(plots: List[int]) -> int:
    n = len(plots)
    if n == 1:
        return max(plots[0], 0)
    best = 0
    for first, last in ((0, n - 1), (1, n)):
        take, skip = 0, 0
        for i in range(first, last):
            take, skip = skip + plots[i], max(take, skip)
        best = max(best, take, skip)
    return best
