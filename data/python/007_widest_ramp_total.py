# difficulty: Medium
# topic: monotonic-stack
def widest_ramp_total(levels: List[int]) -> int:
    starts = []
    for i, v in enumerate(levels):
        if not starts or levels[starts[-1]] > v:
            starts.append(i)
    best = (-1, 0)
    for j in range(len(levels) - 1, -1, -1):
        while starts and levels[starts[-1]] <= levels[j]:
            i = starts.pop()
            if j - i > best[0]:
                best = (j - i, i)
    width, left = best
    return sum(levels[left:left + width + 1])
