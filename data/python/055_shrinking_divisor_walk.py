# difficulty: Medium
# topic: number-theory
def shrinking_divisor_walk(n: int) -> int:
    value = abs(n) + 10
    trail = 0
    while value > 1:
        d = 2
        while d * d <= value and value % d != 0:
            d += 1
        if d * d > value:
            value -= 1
        else:
            value -= value // d
        trail += value
    return trail
