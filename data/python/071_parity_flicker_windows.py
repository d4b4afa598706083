# difficulty: Easy
# topic: simulation
def parity_flicker_windows(lamps: List[int]) -> int:
    n = len(lamps)
    count = 0
    for i in range(n):
        a, b, c = lamps[i] % 2, lamps[(i + 1) % n] % 2, lamps[(i + 2) % n] % 2
        if a != b and b != c:
            count += lamps[(i + 1) % n]
    return count
