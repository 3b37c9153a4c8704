// Package eval scores the router on a task corpus in the format of the
// Macrokit routing benchmark: live against a model, or by replaying a
// recorded run through today's parser, detector, salvage and validation.
package eval
