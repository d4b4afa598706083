# difficulty: Easy
# topic: prefix-sums-hashing
def complementary_pairs(tags: List[int], modulus: int) -> int:
    m = abs(modulus) % 10 + 3
    counts = {}
    pairs = 0
    for t in tags:
        r = t % m
        need = (m - r) % m
        pairs += counts.get(need, 0)
        counts[r] = counts.get(r, 0) + 1
    return pairs
