# difficulty: Medium
# topic: number-theory
def neighbour_gcd_score(stones: List[int]) -> int:
    def gcd(a, b):
        while b:
            a, b = b, a % b
        return abs(a)

    total = 0
    for i in range(len(stones)):
        for j in range(i + 1, len(stones)):
            g = gcd(stones[i], stones[j])
            if g > 1:
                total += g
    return total
