# difficulty: Hard
# topic: simulation
def first_empty_slot(tickets: List[int]) -> int:
    slots = [abs(t) % 12 for t in tickets]
    n = len(slots)
    swaps = 0
    i = 0
    while i < n:
        want = slots[i]
        if want < n and slots[want] != want:
            slots[i], slots[want] = slots[want], slots[i]
            swaps += 1
        else:
            i += 1
    missing = n
    for i in range(n):
        if slots[i] != i:
            missing = i
            break
    return missing * 10 + swaps
