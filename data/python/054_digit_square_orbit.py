# difficulty: Medium
# topic: number-theory
def digit_square_orbit(n: int) -> int:
    value = abs(n) * 7 + 3
    seen = []
    while value not in seen:
        seen.append(value)
        nxt = 0
        while value > 0:
            nxt += (value % 10) ** 2
            value //= 10
        value = nxt
    return len(seen) + value
