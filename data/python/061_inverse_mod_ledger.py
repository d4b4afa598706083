# difficulty: Hard
# topic: number-theory
def inverse_mod_ledger(entries: List[int]) -> int:
    prime = 97

    def extended(a, b):
        if b == 0:
            return (a, 1, 0)
        g, x, y = extended(b, a % b)
        return (g, y, x - (a // b) * y)

    total = 0
    for e in entries:
        r = e % prime
        if r == 0:
            continue
        g, x, _ = extended(r, prime)
        total = (total + x % prime) % prime
    return total
