# difficulty: Medium
# topic: number-theory
def top_prime_factor_sum(batch: List[int]) -> int:
    total = 0
    for x in batch:
        v = abs(x)
        top = 0
        p = 2
        while p * p <= v:
            while v % p == 0:
                top = p
                v //= p
            p += 1
        if v > 1:
            top = v
        total += top
    return total
