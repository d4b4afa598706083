# difficulty: Hard
# topic: monotonic-stack
def tallest_skyline(caps: List[int]) -> int:
    limits = [abs(c) for c in caps]
    n = len(limits)
    left = [0] * n
    stack = []
    for i in range(n):
        while stack and limits[stack[-1]] > limits[i]:
            stack.pop()
        j = stack[-1] if stack else -1
        left[i] = (left[j] if j >= 0 else 0) + limits[i] * (i - j)
        stack.append(i)
    right = [0] * n
    stack = []
    for i in range(n - 1, -1, -1):
        while stack and limits[stack[-1]] > limits[i]:
            stack.pop()
        j = stack[-1] if stack else n
        right[i] = (right[j] if j < n else 0) + limits[i] * (j - i)
        stack.append(i)
    best = 0
    for i in range(n):
        best = max(best, left[i] + right[i] - limits[i])
    return best
