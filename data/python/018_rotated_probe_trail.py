# difficulty: Hard
# topic: two-pointers-sorting
def rotated_probe_trail(values: List[int]) -> int:
    n = len(values)
    shift = abs(values[0]) % n
    ordered = sorted(values)
    ring = ordered[shift:] + ordered[:shift]
    target = values[-1]
    lo, hi = 0, n - 1
    trail = 0
    while lo <= hi:
        mid = (lo + hi) // 2
        trail += ring[mid]
        if ring[mid] == target:
            return trail
        if ring[lo] <= ring[mid]:
            if ring[lo] <= target < ring[mid]:
                hi = mid - 1
            else:
                lo = mid + 1
        else:
            if ring[mid] < target <= ring[hi]:
                lo = mid + 1
            else:
                hi = mid - 1
    return trail
