//go:build race

package resolve

// raceEnabled scales the randomised tests down under the race detector,
// which slows them about tenfold.
const raceEnabled = true
