# difficulty: Medium
# topic: monotonic-stack
def pooled_water(terrain: List[int]) -> int:
    heights = [abs(t) % 40 for t in terrain]
    stack = []
    water = 0
    for i, h in enumerate(heights):
        while stack and heights[stack[-1]] < h:
            floor = heights[stack.pop()]
            if not stack:
                break
            left = stack[-1]
            depth = min(heights[left], h) - floor
            water += depth * (i - left - 1)
        stack.append(i)
    return water
