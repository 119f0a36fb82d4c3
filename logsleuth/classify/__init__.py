"""The trained classifier's vote, combined with the rules' diagnosis.

The model (``model.py``; trained by ``logsleuth train``, ``train.py``) reads the job's warning/error and last lines
(``features.py``) and returns calibrated probabilities over the taxonomy ids. Rules and model are combined so that
each does what it is good at — rules are precise on the lines they know, the model generalises to reworded or
missing lines — and so that the model can never invent a failure:

1. **No failure stays no failure unless the model is sure.** When the rules saw no error at all (verdict
   ``no_failure``: no rule matched and no error-level event), the model is asked, and its cause replaces
   ``no_failure`` only at probability >= ``combine.NO_FAILURE_OVERRIDE`` (0.8), well above the usual bar, and only
   when some line it rests on is not an advisory healthy jobs print too (``tables.ADVISORY_LINES``). This is
   how a Ray memory-monitor report whose headline line is missing, or a syslog-mangled raylet OOM line, is still
   named. ``logsleuth eval`` reports the false-positive rate on ``no_failure`` logs for exactly this policy.
2. **A decisive rule decides.** A *cause* rule of severity ``high``/``critical`` with confidence >= 0.8 is final
   (``method: rule``). The model is not even loaded, so a failure a rule names costs nothing extra (with
   ``--explain`` its vote is computed and shown, but changes nothing). Loading it costs ~0.2 s otherwise
   (``model.load_fast``: numpy only).
3. **Otherwise the model votes**: the winning rule is weak (a cause rule of medium severity or lowered by
   context, or only symptom rules fired), or the rules abstained (``unknown``: errors but no rule, or the best
   rule below the 0.5 abstention bar). The vote counts only when the model's top probability reaches the
   sidecar's ``threshold`` (0.5 by default: a majority of the probability mass over ~20 temperature-calibrated
   classes).
   - It names the cause the rules point at (even an abstained best guess): the two independent supports combine
     by noisy-OR, ``1-(1-c_rule)(1-p_model)`` (``method: rule+model``); an abstained rule that crosses the
     abstention bar this way becomes the verdict, with that rule's fix.
   - When the rules gave an answer (verdict ``failure``: a weak cause, or only symptom rules) and the model names
     another cause, the rules' answer stands and the model's cause is listed as a hypothesis: a rule matched a line
     that names its cause; the model's evidence is diffuse (in grouped cross-validation, letting it overrule weak
     cause rules lost more logs than it won, and letting a sure model overrule a symptom-only answer won none on the
     1709 logs of waves up to AC: ``combine`` keeps the history).
   - The rules abstained and the model names a cause: the model decides (``method: model``, confidence = its
     probability). The rules' candidates stay listed as hypotheses, the lines that push hardest toward the
     model's label become the evidence and the first failure, and the fix is the generic advice of a built-in
     rule for that cause.
   - It says ``no_failure`` while the rules saw errors, or it is below the threshold: the rules' answer stands (an
     ``unknown`` stays ``unknown`` — abstaining beats guessing).
   A model vote the answer does not follow is listed among the hypotheses (``method: model``).

The policy lives in ``logsleuth/combine.py``, which ``pipeline.decide`` calls with a model passed in; this
package (features, training, evaluation) imports the core, never the reverse. ``analyze(..., model=False)`` /
``--no-model`` skips all of this. ``explain=True`` records the vote, the top lines
and the top n-gram features in ``diagnosis.stats["explain"]``.
"""

from __future__ import annotations
