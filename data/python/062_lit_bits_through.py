# difficulty: Medium
# topic: number-theory
def lit_bits_through(n: int) -> int:
    limit = abs(n) + 3
    total = 0
    for v in range(1, limit + 1):
        x = v
        while x:
            total += x % 2
            x = x >> 1
    return total
