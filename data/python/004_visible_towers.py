# difficulty: Hard
# topic: monotonic-stack
def visible_towers(heights: List[int]) -> List[int]:
    seen = []
    stack = []
    for raw in heights:
        h = abs(raw)
        count = 0
        while stack and stack[-1] < h:
            stack.pop()
            count += 1
        if stack:
            count += 1
            if stack[-1] == h:
                stack.pop()
        seen.append(count)
        stack.append(h)
    return seen
