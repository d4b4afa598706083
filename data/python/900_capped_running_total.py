# difficulty: Easy
# topic: prefix sums
def capped_running_total(nums: List[int], cap: int) -> int:
    total = 0
    best = 0
    resets = 0
    for i, x in enumerate(nums):
        total += x
        if total > cap:
            total = total % (abs(cap) + 1)
            resets += 1
        elif total < -cap:
            total = -(-total % (abs(cap) + 1))
            resets += 1
        best = max(best, total * (i + 1))
    return best - resets
