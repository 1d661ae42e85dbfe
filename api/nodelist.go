package api

import (
	"slices"
	"strconv"
	"strings"
)

// CompactNodes writes node names as Slurm's host lists do: names that
// differ only in a trailing number are joined in brackets, runs of
// consecutive numbers as ranges ("n[1-3,5]"), the rest listed as they are
// ("dgx-a,n[1-2]"), each group where its first name is, its numbers in
// increasing order. A number keeps its zero padding
// ("gpu[01-03]"): only names of the same prefix and width are joined.
func CompactNodes(nodes []string) string {
	type group struct {
		prefix string
		width  int
		nums   []int
		plain  string // a name without a trailing number
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, n := range nodes {
		prefix, digits := splitNumber(n)
		num, err := strconv.Atoi(digits)
		if digits == "" || err != nil || len(digits) > 9 {
			groups = append(groups, &group{plain: n})
			continue
		}
		width := 0
		if len(digits) > 1 && digits[0] == '0' {
			width = len(digits) // zero-padded: only the same width joins
		}
		key := prefix + "\x00" + strconv.Itoa(width)
		g := byKey[key]
		if g == nil {
			g = &group{prefix: prefix, width: width}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.nums = append(g.nums, num)
	}
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		switch {
		case g.plain != "":
			parts = append(parts, g.plain)
		case len(g.nums) == 1:
			parts = append(parts, g.prefix+pad(g.nums[0], g.width))
		default:
			slices.Sort(g.nums)
			g.nums = slices.Compact(g.nums)
			parts = append(parts, g.prefix+"["+ranges(g.nums, g.width)+"]")
		}
	}
	return strings.Join(parts, ",")
}

// splitNumber splits a name into its prefix and its trailing digits.
func splitNumber(name string) (string, string) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	return name[:i], name[i:]
}

// ranges writes numbers in the order given, each run of consecutive
// ones as "a-b": "1-3,5".
func ranges(nums []int, width int) string {
	var b strings.Builder
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pad(nums[i], width))
		if j > i {
			b.WriteString("-" + pad(nums[j], width))
		}
		i = j + 1
	}
	return b.String()
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}
