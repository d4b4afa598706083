# difficulty: Hard
# topic: dynamic-programming
def pile_merge_cost(piles: List[int]) -> int:
    sizes = [abs(p) % 30 + 1 for p in piles]
    prefix = [0]
    for s in sizes:
        prefix.append(prefix[-1] + s)
    memo = {}

    def cost(lo, hi):
        if lo == hi:
            return 0
        key = lo * 100 + hi
        if key in memo:
            return memo[key]
        best = -1
        for mid in range(lo, hi):
            here = cost(lo, mid) + cost(mid + 1, hi)
            if best < 0 or here < best:
                best = here
        memo[key] = best + prefix[hi + 1] - prefix[lo]
        return memo[key]

    return cost(0, len(sizes) - 1)
