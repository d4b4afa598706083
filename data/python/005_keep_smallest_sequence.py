# difficulty: Medium
# topic: monotonic-stack
def keep_smallest_sequence(digits: List[int], k: int) -> List[int]:
    n = len(digits)
    keep = abs(k) % n + 1 if n else 0
    drops = n - keep
    stack = []
    for d in digits:
        while drops > 0 and stack and stack[-1] > d:
            stack.pop()
            drops -= 1
        stack.append(d)
    return stack[:keep]
