# difficulty: Hard
# topic: monotonic-stack
def total_spread(samples: List[int]) -> int:
    n = len(samples)
    total = 0
    for sign in (1, -1):
        stack = []
        for i in range(n + 1):
            cur = sign * samples[i] if i < n else 0
            while stack and (i == n or sign * samples[stack[-1]] < cur):
                j = stack.pop()
                left = stack[-1] if stack else -1
                total += sign * samples[j] * (j - left) * (i - j)
            stack.append(i)
    return total
