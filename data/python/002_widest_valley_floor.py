# difficulty: Hard
# topic: monotonic-stack
def widest_valley_floor(depths: List[int]) -> int:
    bars = [abs(d) % 50 for d in depths] + [0]
    stack = []
    best = 0
    for i, h in enumerate(bars):
        start = i
        while stack and stack[-1][1] >= h:
            start, top = stack.pop()
            best = max(best, top * (i - start))
        stack.append((start, h))
    return best
