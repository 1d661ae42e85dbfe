// Package plural writes counts in messages for people with the noun and
// verb that agree with them: "1 slot is free", "2 slots are free", never
// "1 slots". It knows the regular English plurals, which is what the
// nouns of Allot's messages (slot, GPU, task, job, node, switch) need.
package plural
