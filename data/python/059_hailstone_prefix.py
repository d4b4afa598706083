# difficulty: Easy
# topic: number-theory
def hailstone_prefix(n: int) -> List[int]:
    value = abs(n) + 2
    trail = [value]
    while value != 1 and len(trail) < 12:
        if value % 2 == 0:
            value //= 2
        else:
            value = 3 * value + 1
        trail.append(value)
    return trail
