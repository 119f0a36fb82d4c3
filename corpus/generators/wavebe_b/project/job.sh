#!/bin/bash
#SBATCH --job-name=promoter-cnn
#SBATCH --ntasks=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:10:00
#SBATCH --output=slurm-%j.out

# promoter classifier: 2 ranks, gloo on CPU. Extra arguments go to train.py.
export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=${MASTER_PORT:-29750}
export OMP_NUM_THREADS=1
echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST: $SLURM_NTASKS tasks, master $MASTER_ADDR:$MASTER_PORT"
srun python train.py --data-dir data "$@"
