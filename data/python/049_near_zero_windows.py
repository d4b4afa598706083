# difficulty: Medium
# topic: prefix-sums-hashing
def near_zero_windows(deltas: List[int]) -> int:
    prefix = [0]
    for d in deltas:
        prefix.append(prefix[-1] + d)
    count = 0
    for i in range(len(prefix)):
        for j in range(i + 1, len(prefix)):
            if -25 <= prefix[j] - prefix[i] <= 25:
                count += j - i
    return count
