package plural

import (
	"strconv"
	"strings"
)

// Count renders n with noun in the number n asks for: "1 slot",
// "0 slots", "2 h100 slots". noun is given in the singular.
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun returns noun (singular) as n asks: singular for 1 and -1, plural
// otherwise.
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	return Of(noun)
}

// Times says how often something happened: "once", "twice", "3 times".
func Times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return Count(n, "time")
}

// Be returns the form of "to be" that agrees with n: "is" or "are".
func Be(n int) string {
	if n == 1 || n == -1 {
		return "is"
	}
	return "are"
}

// Was returns the past of "to be" that agrees with n: "was" or "were".
func Was(n int) string {
	if n == 1 || n == -1 {
		return "was"
	}
	return "were"
}

// Of returns the regular plural of a singular noun: slot → slots,
// switch → switches, policy → policies. Only the last word changes.
func Of(noun string) string {
	lower := strings.ToLower(noun)
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return noun + "es"
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
