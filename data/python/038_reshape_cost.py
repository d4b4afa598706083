# difficulty: Hard
# topic: dynamic-programming
def reshape_cost(source: List[int], target: List[int]) -> int:
    a = [x % 6 for x in source]
    b = [y % 6 for y in target]
    prev = [2 * j for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 2, prev[j - 1] + abs(a[i - 1] - b[j - 1]))
        prev = cur
    return prev[-1]
