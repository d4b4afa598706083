# difficulty: Medium
# topic: dynamic-programming
def pack_value(items: List[int], room: int) -> int:
    cap = abs(room) % 40 + 10
    best = [0] * (cap + 1)
    for x in items:
        w = abs(x) % 15 + 1
        v = abs(x)
        for c in range(cap, w - 1, -1):
            if best[c - w] + v > best[c]:
                best[c] = best[c - w] + v
    return best[cap]
