# difficulty: Easy
# topic: dynamic-programming
def cheapest_ascent(toll: List[int]) -> int:
    a = b = 0
    for t in toll:
        a, b = b, min(a, b) + abs(t)
    return min(a, b)
