# difficulty: Medium
# topic: monotonic-stack
def fuse_charges(charges: List[int]) -> List[int]:
    stack = []
    for q in charges:
        current = q
        while current < 0 and stack and stack[-1] > 0:
            current += stack.pop()
        if current != 0:
            stack.append(current)
    return stack
