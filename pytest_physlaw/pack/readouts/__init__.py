"""Readout laws: what MuJoCo reports of a step (a readout of mjData, a sensor) is what the step applied, computed
a second way from MuJoCo's own calls. One module a kind of readout:

- `constraint`: qfrc_constraint is J^T efc_force (`mj_mulJacTVec`); each contact's force as `mj_contactForce`
  decodes it (contact frame, pyramidal or elliptic cone) does the generalised work of the contact's rows.
- `actuation`: qfrc_actuator is actuator_moment^T actuator_force (+ actuator gravity compensation, clamped by
  the joints' actuatorfrcrange); actuator_force is the force law gain * (ctrl or act) + bias, clamped.
- `sensors`: each sensor reads the quantity of mjData it names (joint, tendon, actuator, frame, site, subtree,
  touch, force and torque sensors, clock).

Every law reads the states it judges through one fixture, `states.readout_states` (the start and the states of
the driven run). Each law's bound is the round-off of its second computation, a share of the scale of the terms
it sums (a product's round-off is at most n eps times the sum of its terms' sizes: 1e-12 for n up to 4500).
"""
