# difficulty: Medium
# topic: monotonic-stack
def next_lower_gap(levels: List[int]) -> List[int]:
    n = len(levels)
    drops = [0] * n
    waiting = []
    for j in range(n):
        while waiting and levels[waiting[-1]] > levels[j]:
            i = waiting.pop()
            drops[i] = (levels[i] - levels[j]) * (j - i)
        waiting.append(j)
    for i in waiting:
        drops[i] = -levels[i]
    return drops
