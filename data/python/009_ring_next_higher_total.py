# difficulty: Hard
# topic: monotonic-stack
def ring_next_higher_total(ring: List[int]) -> int:
    n = len(ring)
    nxt = [0] * n
    stack = []
    for step in range(2 * n - 1, -1, -1):
        i = step % n
        while stack and stack[-1] <= ring[i]:
            stack.pop()
        if step < n:
            nxt[i] = stack[-1] - ring[i] if stack else -ring[i]
        stack.append(ring[i])
    return sum(nxt)
