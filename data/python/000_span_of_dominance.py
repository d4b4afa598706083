# difficulty: Medium
# topic: monotonic-stack
def span_of_dominance(readings: List[int]) -> int:
    stack = []
    total = 0
    for i, value in enumerate(readings):
        span = 1
        while stack and stack[-1][0] <= value:
            span += stack.pop()[1]
        stack.append((value, span))
        total += span * (i % 3 + 1)
    return total
