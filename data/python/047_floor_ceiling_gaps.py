# difficulty: Easy
# topic: prefix-sums-hashing
def floor_ceiling_gaps(temps: List[int]) -> List[int]:
    n = len(temps)
    suffix_top = [0] * n
    top = temps[-1]
    for i in range(n - 1, -1, -1):
        top = max(top, temps[i])
        suffix_top[i] = top
    gaps = []
    low = temps[0]
    for i in range(n):
        low = min(low, temps[i])
        gaps.append(suffix_top[i] - low)
    return gaps
