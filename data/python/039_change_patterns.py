# difficulty: Medium
# topic: dynamic-programming
def change_patterns(coins: List[int], amount: int) -> int:
    target = abs(amount) % 50 + 20
    faces = sorted(set(abs(c) % 20 + 3 for c in coins))
    ways = [1] + [0] * target
    for f in faces:
        for s in range(f, target + 1):
            ways[s] = (ways[s] + ways[s - f]) % (10 ** 9 + 7)
    return ways[target]
