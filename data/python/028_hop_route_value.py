# difficulty: Medium
# topic: two-pointers-sorting
def hop_route_value(pads: List[int]) -> int:
    n = len(pads)
    pos = 0
    total = pads[0]
    while pos + abs(pads[pos]) % 4 + 1 < n - 1:
        reach = pos + abs(pads[pos]) % 4 + 1
        best = pos + 1
        for nxt in range(pos + 1, reach + 1):
            if nxt + abs(pads[nxt]) % 4 >= best + abs(pads[best]) % 4:
                best = nxt
        pos = best
        total += pads[pos]
    return total + pads[-1]
