#!/usr/bin/python3
import atm
atm.dispense(20)
