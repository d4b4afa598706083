# difficulty: Medium
# topic: two-pointers-sorting
def longest_affordable_run(costs: List[int], budget: int) -> int:
    allowance = abs(budget) * 2
    left = 0
    spent = 0
    best_len = 0
    best_sum = 0
    for right, c in enumerate(costs):
        spent += abs(c)
        while spent > allowance:
            spent -= abs(costs[left])
            left += 1
        if right - left + 1 > best_len:
            best_len = right - left + 1
            best_sum = sum(costs[left:right + 1])
    return best_sum
