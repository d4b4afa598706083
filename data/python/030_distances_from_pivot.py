# difficulty: Medium
# topic: two-pointers-sorting
def distances_from_pivot(points: List[int], pivot: int) -> List[int]:
    pts = sorted(points)
    lo, hi = 0, len(pts)
    while lo < hi:
        mid = (lo + hi) // 2
        if pts[mid] < pivot:
            lo = mid + 1
        else:
            hi = mid
    left, right = lo - 1, lo
    out = []
    while left >= 0 or right < len(pts):
        if right >= len(pts) or (left >= 0 and pivot - pts[left] <= pts[right] - pivot):
            out.append(pts[left] - pivot)
            left -= 1
        else:
            out.append(pts[right] - pivot)
            right += 1
    return out
