# difficulty: Hard
# topic: number-theory
def base_minus_three(n: int) -> List[int]:
    if n == 0:
        return [0]
    digits = []
    value = n * 11
    while value != 0:
        r = value % -3
        value = value // -3
        if r < 0:
            r += 3
            value += 1
        digits.append(r)
    return digits[::-1]
