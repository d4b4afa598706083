# difficulty: Medium
# topic: monotonic-stack
def reign_lengths(scores: List[int]) -> List[int]:
    n = len(scores)
    before = [-1] * n
    after = [n] * n
    stack = []
    for i in range(n):
        while stack and scores[stack[-1]] < scores[i]:
            after[stack.pop()] = i
        before[i] = stack[-1] if stack else -1
        stack.append(i)
    return [after[i] - before[i] - 1 for i in range(n)]
