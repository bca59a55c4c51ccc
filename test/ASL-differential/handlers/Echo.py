#!/usr/bin/python3
# Returns its input unchanged.
import _lambda
_lambda.reply(_lambda.read())
