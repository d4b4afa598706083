# difficulty: Hard
# topic: monotonic-stack
def sum_window_maxima(values: List[int]) -> int:
    n = len(values)
    left = [0] * n
    right = [0] * n
    stack = []
    for i in range(n):
        while stack and values[stack[-1]] < values[i]:
            stack.pop()
        left[i] = i - stack[-1] if stack else i + 1
        stack.append(i)
    stack = []
    for i in range(n - 1, -1, -1):
        while stack and values[stack[-1]] <= values[i]:
            stack.pop()
        right[i] = stack[-1] - i if stack else n - i
        stack.append(i)
    total = 0
    for i in range(n):
        total += values[i] * left[i] * right[i]
    return total
