# difficulty: Medium
# topic: monotonic-stack
def leader_segments(ranks: List[int]) -> int:
    n = len(ranks)
    total = 0
    stack = []
    for i in range(n - 1, -1, -1):
        while stack and ranks[stack[-1]] <= ranks[i]:
            stack.pop()
        reach = stack[-1] if stack else n
        total += (reach - i) * (1 if ranks[i] >= 0 else 2)
        stack.append(i)
    return total
