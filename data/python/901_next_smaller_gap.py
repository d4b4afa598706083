# difficulty: Medium
# topic: monotonic stack
def next_smaller_gap(values: List[int]) -> List[int]:
    n = len(values)
    gaps = [n - i for i in range(n)]
    stack = []
    for i in range(n):
        while stack and values[stack[-1]] > values[i]:
            j = stack.pop()
            gaps[j] = i - j
        stack.append(i)
    return [g * (1 if values[i] >= 0 else -1) for i, g in enumerate(gaps)]
