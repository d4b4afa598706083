# difficulty: Hard
# topic: dynamic programming
def paired_window_score(left: List[int], right: List[int]) -> int:
    m = min(len(left), len(right))
    memo = {}

    def best(i, used):
        if i >= m:
            return 0
        key = (i, used)
        if key in memo:
            return memo[key]
        skip = best(i + 1, used)
        take = left[i] * right[i] - used + best(i + 1, used + 1)
        memo[key] = max(skip, take)
        return memo[key]

    return best(0, 0) - sum(1 for a, b in zip(left, right) if a == b)
