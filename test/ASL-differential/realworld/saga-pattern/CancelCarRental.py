#!/usr/bin/python3
import saga
saga.run('CancelCarRental')
