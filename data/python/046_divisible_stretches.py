# difficulty: Medium
# topic: prefix-sums-hashing
def divisible_stretches(amounts: List[int], base: int) -> int:
    m = abs(base) % 9 + 2
    seen = {0: 1}
    running = 0
    count = 0
    for a in amounts:
        running = (running + a) % m
        count += seen.get(running, 0)
        seen[running] = seen.get(running, 0) + 1
    return count
